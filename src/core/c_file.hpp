#pragma once
// A C stdio stream on a UTF-8 path (c_file_<platform>.cpp). On Windows std::fopen reads the path
// in the ANSI code page, which cannot spell every user's file name; this opens it as UTF-16.
#include <cstdio>
#include <string>

namespace gpuvet {

// Opens the file for binary reading; nullptr (errno set) when it cannot.
std::FILE* open_for_reading(const std::string& utf8_path);

}  // namespace gpuvet

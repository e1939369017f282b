#pragma once
// Search lists as glibc's ld.so builds them (elf/dl-load.c: fillin_rpath, _dl_dst_substitute,
// is_dst), rewritten from their documented behaviour:
//  - a list is split on its separators (':' for DT_RPATH/DT_RUNPATH, ':' and ';' for
//    LD_LIBRARY_PATH); an empty entry is the current directory;
//  - $ORIGIN, $LIB and $PLATFORM are replaced, also as ${ORIGIN} ...; "$ORIGINX" is no token and
//    stays as written, and so does an unknown "$FOO";
//  - an entry with a token that has no value (an $ORIGIN nobody knows) is dropped, and so is one
//    that expands to nothing;
//  - trailing slashes go ("/a//" is "/a"), and a directory already in the list is not repeated.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::resolve {

struct TokenValues {
  std::optional<std::string> origin;  // the directory of the object the list belongs to
  std::string lib;                    // $LIB
  std::string platform;               // $PLATFORM
};

// The entry with its tokens replaced, or nullopt when a token it holds has no value.
std::optional<std::string> expand_tokens(std::string_view entry, const TokenValues& values);

// True when the entry holds $ORIGIN, $LIB or $PLATFORM (either spelling).
bool has_tokens(std::string_view entry);

struct SearchEntry {
  std::string entry;               // as written
  std::optional<std::string> dir;  // expanded; "" is the current directory; nullopt: dropped
};

// Splits a list on any of the separators, keeping empty entries (as strsep does).
std::vector<std::string> split_list(std::string_view list, std::string_view separators);

// The directories of a list, in order, expanded and without repeats. Entries dropped for a token
// without a value are kept with dir = nullopt, so that a report can say why.
std::vector<SearchEntry> search_entries(const std::vector<std::string>& entries,
                                        const TokenValues& values);

}  // namespace gpuvet::resolve

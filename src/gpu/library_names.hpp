#pragma once
// The NVIDIA driver's file names and where to look for them, per platform
// (library_names_<platform>.cpp): the loader's names for NVML and the CUDA driver, and the
// places outside the default search where some drivers put NVML and nvidia-smi.
#include <string>
#include <vector>

namespace gpuvet::gpu {

// Bare names, searched the platform loader's way: "libnvidia-ml.so.1" / "nvml.dll".
const char* nvml_library();
// "libcuda.so.1" / "nvcuda.dll".
const char* cuda_driver_library();
// Full paths to try when NVML does not load by its bare name (Windows drivers before DCH keep
// nvml.dll in the NVSMI folder, which is not on the search path); empty where there is none.
std::vector<std::string> nvml_fallback_paths();

// The program that answers for the driver when NVML cannot: "nvidia-smi" / "nvidia-smi.exe".
const char* nvidia_smi_program();
// Where nvidia-smi may be besides the folders on PATH (the NVSMI folder on Windows).
std::vector<std::string> nvidia_smi_fallback_paths();
// PATH's list separator: ':' / ';'.
char path_list_separator();
// This process's PATH in UTF-8 (Windows: read as UTF-16, never through the ANSI code page).
std::string executable_search_path();

}  // namespace gpuvet::gpu

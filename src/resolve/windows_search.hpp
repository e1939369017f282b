#pragma once
// `which` on Windows: the file LoadLibrary would load for a DLL name, from what the System says
// (a Windows snapshot, or the live Windows System). Microsoft's "Dynamic-link library search
// order" (learn.microsoft.com/windows/win32/dlls/dynamic-link-library-search-order):
//   0. a KnownDLL (registry KnownDLLs) is always System32's copy;
//   standard search, SafeDllSearchMode on (the default):
//   1. the folder of the application (the .exe), 2. System32, 3. the 16-bit system folder,
//   4. the Windows folder, 5. the current folder, 6. the PATH entries in order;
//   with SafeDllSearchMode = 0 in the registry the current folder comes second.
// Python 3.8 and later load an extension module's dependencies with
// LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR (bpo-36085): the module's
// own folder, the application folder, System32 and the os.add_dll_directory folders; PATH and
// the current folder are not searched. TensorFlow loads its CUDA DLLs by name with the standard
// search, so PATH still counts for them (--from python.exe).
// Not modelled: DLL redirection and manifests (SxS), API sets, DLLs already loaded in the process.
#include <optional>
#include <string>
#include <vector>

#include "resolve/which.hpp"
#include "system/system.hpp"

namespace gpuvet::resolve {

WhichReport which_windows(const sys::System& system, const WhichRequest& request);

// A Windows path list entry as a process uses it: %VAR% expanded from the System's environment,
// '/' separators, no trailing one.
std::string windows_path_entry(const sys::System& system, const std::string& entry);

}  // namespace gpuvet::resolve

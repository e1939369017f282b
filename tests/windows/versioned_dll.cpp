// A DLL for LoadLibrary and version-resource tests; its one export proves it loaded.
extern "C" __declspec(dllexport) int gpuvet_versioned_answer() {
  return 42;
}

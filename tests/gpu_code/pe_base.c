/* The DLLs the PE fixtures are: MinGW-w64 links each with one committed fat binary in a read-only
   data section, as the host code nvcc generates does. Built with -DSECTION=<name> -DFATBIN=<file>
   (found through -Wa,-I); without them, a DLL without GPU code. */
#define GPUVET_STRING(x) #x
#define GPUVET_QUOTE(x) GPUVET_STRING(x)
#if defined(SECTION) && defined(FATBIN)
__asm__(".section " GPUVET_QUOTE(SECTION) ",\"dr\"\n"
        ".balign 8\n"
        ".incbin \"" GPUVET_QUOTE(FATBIN) "\"\n"
        ".text\n");
#endif

__declspec(dllexport) int gpuvet_fixture_pe(void) {
  return 1;
}

// The shared library the ELF fixtures are made from: objcopy adds a fat binary section.
extern "C" int gpuvet_fixture_elf(void) {
  return 1;
}

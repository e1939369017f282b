// One library the loader oracle tests install under several names and in several directories.
// It needs nothing from libc or the C++ runtime, so that it also links as a 32-bit file with
// -m32 -nostdlib where no 32-bit C library is installed.
extern "C" int gvo_value() {
  return GVO_VALUE;
}

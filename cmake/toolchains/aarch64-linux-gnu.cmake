# Cross-compiling for 64-bit Arm Linux with Debian's cross toolchain (g++-aarch64-linux-gnu;
# scripts/install-deps cross-aarch64). The programs run under qemu-aarch64 (qemu-user), which
# finds the target's C and C++ runtime in /usr/aarch64-linux-gnu. Used by scripts/cross-aarch64:
#   cmake -S cmake/kernels-only -B build-aarch64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Target libraries and headers from the cross toolchain's tree (and any sysroot added to
# CMAKE_FIND_ROOT_PATH); build tools from the host.
list(APPEND CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest (and gtest discovery) run the target's programs through qemu. A caller with target
# libraries elsewhere (scripts/cross-aarch64's OpenBLAS) sets the emulator with -E LD_LIBRARY_PATH.
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
endif()

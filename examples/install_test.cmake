# CTest script (tests/CMakeLists.txt is not involved; the root CMakeLists.txt registers it):
# installs the build into a temporary prefix, builds examples/speak.c against the installed copy
# twice (CMake find_package, then pkg-config), and runs both on a random voice.
# Inputs: BUILD_DIR, SOURCE_DIR, C_COMPILER, SANITIZE.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(LAST_OUTPUT "${out}${err}" PARENT_SCOPE)
endfunction()

string(RANDOM LENGTH 8 tag)
set(work "${BUILD_DIR}/install-test-${tag}")
file(REMOVE_RECURSE "${work}")
set(prefix "${work}/prefix")
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

foreach(f bin/tts include/tts/tts.h)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# Every bundled voice is installed where the installed command looks for it, and loads from there.
file(GLOB bundled RELATIVE "${SOURCE_DIR}/voices" "${SOURCE_DIR}/voices/*/voice.json")
foreach(v ${bundled})
  if(NOT EXISTS "${prefix}/share/tts/voices/${v}")
    message(FATAL_ERROR "bundled voice not installed: share/tts/voices/${v}")
  endif()
  get_filename_component(name "${v}" DIRECTORY)
  run("${prefix}/bin/tts" synth-mel "Installed." --voice "${prefix}/share/tts/voices/${name}"
      -o "${work}/${name}.npy")
endforeach()
# lib, lib64, or Debian's multiarch lib/x86_64-linux-gnu (a build configured for the prefix /usr).
file(GLOB libs "${prefix}/lib*/libtts.so.0" "${prefix}/lib/*/libtts.so.0")
file(GLOB pcs "${prefix}/lib*/pkgconfig/tts.pc" "${prefix}/lib/*/pkgconfig/tts.pc")
file(GLOB configs "${prefix}/lib*/cmake/tts/ttsConfig.cmake" "${prefix}/lib/*/cmake/tts/ttsConfig.cmake")
if(NOT libs OR NOT pcs OR NOT configs)
  message(FATAL_ERROR "missing libtts.so.0 (${libs}), tts.pc (${pcs}) or ttsConfig.cmake (${configs})")
endif()
get_filename_component(libdir "${libs}" DIRECTORY)

set(flags "")
set(link_flags "")
if(SANITIZE)
  set(flags "-fsanitize=address,undefined")
  set(link_flags "${flags}")
  if(C_COMPILER MATCHES "clang")  # UBSan's C++ half, which libtts.so calls (CMakeLists.txt)
    string(APPEND link_flags " -fsanitize-link-c++-runtime -lstdc++")
  endif()
endif()

# A voice to speak with, made by the installed command.
run("${prefix}/bin/tts" voices create-random "${work}/voice")

# 1. CMake package.
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples" -B "${work}/cmake-build"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} "-DCMAKE_C_FLAGS=${flags}"
    "-DCMAKE_EXE_LINKER_FLAGS=${link_flags}")
run(${CMAKE_COMMAND} --build "${work}/cmake-build")
run("${work}/cmake-build/speak" "${work}/voice" "Hello from the installed library." "${work}/a.wav")
file(SIZE "${work}/a.wav" size_a)
if(size_a LESS 1000)
  message(FATAL_ERROR "find_package build wrote only ${size_a} bytes")
endif()

# 2. pkg-config.
set(ENV{PKG_CONFIG_PATH} "${libdir}/pkgconfig")
run(pkg-config --cflags --libs tts)
string(STRIP "${LAST_OUTPUT}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
separate_arguments(san UNIX_COMMAND "${link_flags}")
run(${C_COMPILER} -std=c99 -Wall -Wextra -Werror ${san} "${SOURCE_DIR}/examples/speak.c"
    ${pc_flags} -o "${work}/speak-pc")
set(ENV{LD_LIBRARY_PATH} "${libdir}")
run("${work}/speak-pc" "${work}/voice" "Hello from the installed library." "${work}/b.wav")
file(SIZE "${work}/b.wav" size_b)
if(NOT size_a EQUAL size_b)
  message(FATAL_ERROR "the two builds disagree: ${size_a} vs ${size_b} bytes")
endif()

# Only the C API is exported.
execute_process(COMMAND nm -D --defined-only "${libs}" OUTPUT_VARIABLE symbols)
string(REGEX MATCHALL "[^\n]+" lines "${symbols}")
foreach(line ${lines})
  if(NOT line MATCHES " tts_[a-z_]+$")
    message(FATAL_ERROR "libtts exports a symbol outside the C API: ${line}")
  endif()
endforeach()

file(REMOVE_RECURSE "${work}")
message(STATUS "install test passed (${size_a} bytes of audio from each build)")

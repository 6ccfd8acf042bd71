# How the build is kept short on a small machine (figures: docs/benchmarks.md, "Build").
#
# The time of a cold build goes mostly to the same headers parsed and their inline code compiled
# again in every source file: Eigen (in 89 of the command's 141 files), nlohmann json (85) and
# CLI11 (24 of the 28 files of the command, about 8 s of CPU each at -O3, mostly its global
# validator objects). Two remedies, each an option:
#
# - A unity build (TTS_UNITY_BUILD) compiles each library's files in batches of eight, so those
#   headers are read once a batch: about a third of the CPU time. A file whose file-local names
#   clash with a neighbour's is compiled on its own (tts_unity_build_exclude).
# - Precompiled headers (TTS_PRECOMPILE_HEADERS) for the targets with many files of their own that
#   read the same heavy headers: the command (CLI11) and the test programs (GoogleTest and gmock,
#   one header shared by all of them). Off by default under ccache, which cannot cache a compile
#   that uses a precompiled header unless its sloppiness allows it (pch_defines,time_macros).
option(TTS_UNITY_BUILD "Compile the sources of each library and of the command in batches (unity build)" ON)
set(tts_pch_default ON)
if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
  set(tts_pch_default OFF)
endif()
option(TTS_PRECOMPILE_HEADERS "Precompile the heavy headers of the command and of the tests" ${tts_pch_default})
set(CMAKE_UNITY_BUILD ${TTS_UNITY_BUILD})
set(CMAKE_UNITY_BUILD_BATCH_SIZE 16)

# Files compiled outside their target's unity batches, each with the reason.
function(tts_unity_build_exclude)
  set_source_files_properties(${ARGN} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# Precompiles HEADERS for TARGET, or reuses the precompiled headers of REUSE_FROM (a target
# compiled with the same flags: Clang rejects a precompiled header made with other options).
function(tts_precompile_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "REUSE_FROM" "HEADERS")
  if(NOT TTS_PRECOMPILE_HEADERS)
    return()
  endif()
  if(arg_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${arg_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${arg_HEADERS})
  endif()
endfunction()

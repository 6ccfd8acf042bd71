# How the build is kept short on a small machine (figures: docs/benchmarks.md, "Build").
#
# The time of a cold build went mostly to the same headers parsed, and their inline code compiled,
# again in every source file: Eigen (in 89 of the command's 141 files), nlohmann json (85) and
# CLI11 (24 of the 28 files of the command, about 8 s of CPU each at -O3, mostly its global
# validator objects). Two remedies, each an option:
#
# - A unity build (TTS_UNITY_BUILD) compiles each library's files, and the command's, in batches
#   of sixteen, so those headers are read once a batch: the command builds in a quarter of the CPU
#   time. A file whose file-local names clash with a neighbour's is compiled on its own
#   (tts_unity_build_exclude); CI builds this way with GCC and Clang, so a new clash fails there.
# - A precompiled header (TTS_PRECOMPILE_HEADERS) shared by the test programs, one source file
#   each, which all read GoogleTest, gmock, Eigen and json. (The libraries' batches gain nothing
#   from one: it costs about what it saves.) Off by default under ccache, which cannot cache a
#   compile that uses a precompiled header unless its sloppiness allows it
#   (pch_defines,time_macros).
option(TTS_UNITY_BUILD "Compile the sources of each library and of the command in batches (unity build)" ON)
set(tts_pch_default ON)
if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
  set(tts_pch_default OFF)
endif()
option(TTS_PRECOMPILE_HEADERS "One precompiled header for the test programs" ${tts_pch_default})
set(CMAKE_UNITY_BUILD ${TTS_UNITY_BUILD})
set(CMAKE_UNITY_BUILD_BATCH_SIZE 16)
if(TTS_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC takes every file of a batch for a header, and a class of a source file whose member has a
  # type of that file's anonymous namespace for one that every includer would see differently.
  # Compiled file by file (TTS_UNITY_BUILD=OFF) the warning stays on.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
endif()

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

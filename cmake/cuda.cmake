# Decides whether the CUDA backend is built. AUTO builds it when nvcc and cuDNN are both found; ON
# requires them; OFF never builds it. The rest of the build never depends on the outcome.
set(TTS_HAVE_CUDA OFF)
if(NOT TTS_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  find_path(TTS_CUDNN_INCLUDE cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
  find_library(TTS_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND TTS_CUDNN_INCLUDE AND TTS_CUDNN_LIBRARY)
    # Unless the user chose architectures (enable_language would otherwise pick nvcc's own
    # default, 75 for CUDA 13): the GPU that is here at configure time, or else the GPUs people
    # own: sm_75 (Turing: T4, RTX 20), sm_80 (Ampere, whose code also runs on sm_86 and sm_89: A100,
    # RTX 30 and 40) and sm_90 (Hopper) with its PTX, which the driver compiles for newer GPUs.
    # Three architectures compile about three times as long as one (docs/gpu.md).
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
        RESULT_VARIABLE tts_smi_status OUTPUT_VARIABLE tts_smi_caps ERROR_QUIET
        OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(tts_smi_status EQUAL 0 AND tts_smi_caps)
        set(tts_cuda_architectures native)
      else()
        set(tts_cuda_architectures "75-real;80-real;90")
      endif()
      set(CMAKE_CUDA_ARCHITECTURES ${tts_cuda_architectures} CACHE STRING
        "CUDA architectures to build for")
    endif()
    message(STATUS "tts: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
    enable_language(CUDA)
    set(TTS_HAVE_CUDA ON)
  elseif(TTS_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TTS_CUDA=ON but nvcc, the CUDA toolkit or cuDNN was not found")
  endif()
endif()
message(STATUS "tts: CUDA backend ${TTS_HAVE_CUDA}")

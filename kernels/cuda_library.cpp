// Finds and opens libtts_cuda.so (tts/kernels/cuda_library.h). The build defines where it was
// built and where it installs (kernels/CMakeLists.txt); a build without the CUDA backend defines
// neither, and every call says so.
#include "tts/kernels/cuda_library.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace tts::kernels {

namespace {

std::atomic<CudaLibrary*> loaded{nullptr};

#ifdef TTS_CUDA_LIBRARY_BUILD_PATH
std::vector<std::string> candidate_paths() {
  std::vector<std::string> paths;
  if (const char* chosen = std::getenv("TTS_CUDA_LIBRARY"); chosen && *chosen)
    paths.emplace_back(chosen);
  paths.emplace_back(TTS_CUDA_LIBRARY_BUILD_PATH);
#ifdef TTS_CUDA_LIBRARY_INSTALL_PATH
  paths.emplace_back(TTS_CUDA_LIBRARY_INSTALL_PATH);
#endif
  return paths;
}

CudaLibrary* load() {
  std::string tried;
  for (const std::string& path : candidate_paths()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += "\n  " + path + ": no such file";
      continue;
    }
    // RTLD_LOCAL: the library's own copies of the CPU code stay out of the process's symbol table.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      tried += "\n  " + path + ": " + (why ? why : "dlopen failed");
      continue;
    }
    auto entry = reinterpret_cast<CudaLibraryEntryPoint>(dlsym(handle, kCudaLibraryEntryPoint));
    if (!entry) {
      tried += "\n  " + path + ": no " + kCudaLibraryEntryPoint + " (not a tts CUDA backend?)";
      dlclose(handle);
      continue;
    }
    char error[512] = "";
    if (CudaLibrary* library = entry(error, sizeof error)) return library;  // kept open for good
    tried += "\n  " + path + ": " + error;
    dlclose(handle);
  }
  throw std::runtime_error("the CUDA backend (libtts_cuda.so) could not be loaded; tried:" + tried +
                           "\n(set TTS_CUDA_LIBRARY to its path, or use the CPU)");
}
#endif

}  // namespace

CudaLibrary& cuda_library() {
#if !defined(TTS_CUDA_LIBRARY_BUILD_PATH)
  throw std::invalid_argument(
      "this build has no CUDA backend (configure with -DTTS_CUDA=ON on a machine with the CUDA "
      "toolkit and cuDNN), use the CPU");
#else
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    try {
      loaded.store(load());
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (CudaLibrary* library = loaded.load()) return *library;
  throw std::runtime_error(failure);
#endif
}

bool cuda_library_loaded() { return loaded.load() != nullptr; }

}  // namespace tts::kernels

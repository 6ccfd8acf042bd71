# Sourced by scripts/gpu-check and scripts/gpu-pretrain: packing programs for the device machine,
# whose image has the CUDA toolkit but none of our dependencies (no espeak-ng, no OpenBLAS, no
# flite), and unpacking them there.

# bundle_programs STAGE PROGRAM...: copies the programs into STAGE/bin and every shared library they
# load into STAGE/lib, except glibc's, the C++ runtime's (the GPU image's are newer) and CUDA's own
# (the GPU image has the same CUDA 13 toolkit).
bundle_programs() {
  local stage=$1
  shift
  mkdir -p "$stage/bin" "$stage/lib"
  cp "$@" "$stage/bin/"
  ldd "$stage"/bin/* | awk '/=> \// {print $3}' | sort -u |
    grep -v -E '/usr/local/cuda|/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
}

# bundle_library STAGE LIBRARY: copies a library the programs open with dlopen (which ldd of the
# programs cannot see) into STAGE/lib, with what it loads, on the same terms as bundle_programs.
bundle_library() {
  local stage=$1
  mkdir -p "$stage/lib"
  cp "$2" "$stage/lib/"
  ldd "$2" | awk '/=> \// {print $3}' | sort -u |
    grep -v -E '/usr/local/cuda|/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
}

# bundle_espeak_data STAGE: espeak-ng's data beside the programs (STAGE/espeak-ng-data), found
# through the libespeak-ng that STAGE/bin/tts loads.
bundle_espeak_data() {
  local data
  data=$(dirname "$(ldd "$1/bin/tts" | awk '/libespeak-ng/ {print $3}')")/espeak-ng-data
  cp -r "$data" "$1/espeak-ng-data"
}

# unpack_bundle FILE NAME: unpacks FILE (a tar.xz of the folder NAME) into a new temporary folder,
# points the dynamic linker and espeak-ng at it, and sets $bundle_dir to the unpacked NAME.
unpack_bundle() {
  local unpack
  unpack=$(mktemp -d)
  xz -dc "$1" | tar -C "$unpack" -xf - || return 1
  bundle_dir="$unpack/$2"
  export LD_LIBRARY_PATH="$bundle_dir/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export ESPEAK_DATA_PATH="$bundle_dir"
  # The CUDA backend the programs open on first GPU use, when the bundle has it (bundle_library).
  if [ -f "$bundle_dir/lib/libtts_cuda.so" ]; then export TTS_CUDA_LIBRARY="$bundle_dir/lib/libtts_cuda.so"; fi
  echo "bundle built from commit $(cat "$bundle_dir/commit" 2>/dev/null || echo '?')"
}

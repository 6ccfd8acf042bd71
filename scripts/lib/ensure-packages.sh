# Sourced by the corpus scripts: ensure_packages WHO PACKAGE... installs with apt-get (through sudo
# when not root) those of the Debian packages that are not installed, saying so as WHO. Nothing
# runs when all are there, or when TTS_NO_INSTALL=1 (then the caller finds them elsewhere or
# fails naming what is missing).
ensure_packages() {
  local who=$1 missing=() p
  shift
  [ "${TTS_NO_INSTALL:-0}" = 1 ] && return 0
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "$who: installing ${missing[*]}" >&2
  local sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  if ! "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
    "${sudo_cmd[@]}" apt-get update
    "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
  fi
}

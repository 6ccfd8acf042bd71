// The SHA-256 an index records of each archive (OpenSSL's libcrypto): unlike the CRC-32s inside an
// archive, which catch damage, it lets an index vouch for the archive it points at.
#include <openssl/evp.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include "tts/voice_sharing/voice_index.h"

namespace tts::sharing {

std::string sha256_of_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                        &EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("cannot start a SHA-256 (OpenSSL)");
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n > 0) EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n));
  }
  if (in.bad()) throw std::runtime_error(file.string() + ": read failed");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest, &length);
  std::string text;
  for (unsigned int i = 0; i < length; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned>(digest[i]));
    text += hex;
  }
  return text;
}

}  // namespace tts::sharing

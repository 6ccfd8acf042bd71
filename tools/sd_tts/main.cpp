// sd_tts: a Speech Dispatcher output module speaking with tts voices (docs/speech-dispatcher.md).
// speech-dispatcher starts it as `sd_tts [CONFIG]` and speaks the module protocol (protocol.h)
// over its stdin and stdout; the main thread reads commands, a worker thread synthesises
// (session.h).
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "protocol.h"
#include "session.h"
#include "tts/build_info.h"

namespace {

// Lines from a file descriptor, without their "\n"; binary-safe, any length.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  bool next(std::string& line) {
    for (;;) {
      std::size_t nl = buffer_.find('\n', scanned_);
      if (nl != std::string::npos) {
        line.assign(buffer_, 0, nl);
        buffer_.erase(0, nl + 1);
        scanned_ = 0;
        return true;
      }
      scanned_ = buffer_.size();
      char chunk[65536];
      ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // end of input (a last line without "\n" is dropped)
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
  std::size_t scanned_ = 0;
};

// Installed, the module is <prefix>/lib/speech-dispatcher-modules/sd_tts and the voices are in
// <prefix>/share/tts/voices, two folders up and not where the engine looks from an executable
// (<prefix>/bin/../share): add that folder to the end of $TTS_VOICE_PATH.
void add_installed_voices() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return;
  std::filesystem::path voices = (exe.parent_path() / "../../share/tts/voices").lexically_normal();
  if (!std::filesystem::is_directory(voices, ec)) return;
  const char* old = std::getenv("TTS_VOICE_PATH");
  std::string path = old && *old ? std::string(old) + ":" + voices.string() : voices.string();
  ::setenv("TTS_VOICE_PATH", path.c_str(), 1);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tts::speechd;
  if (argc >= 2 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
    std::printf(
        "usage: sd_tts [CONFIG]\n"
        "A Speech Dispatcher output module (started by speech-dispatcher, which speaks its\n"
        "module protocol over stdin and stdout). Add to speechd.conf:\n"
        "  AddModule \"tts\" \"sd_tts\" \"sd_tts.conf\"\n");
    return 0;
  }
  if (argc >= 2 && !std::strcmp(argv[1], "--version")) {
    std::printf("sd_tts %s\n", TTS_VERSION_STRING);
    return 0;
  }
  std::signal(SIGPIPE, SIG_IGN);
  add_installed_voices();
  ModuleConfig config = read_module_config(argc >= 2 ? argv[1] : "");
  Output out(STDOUT_FILENO);
  LineReader in(STDIN_FILENO);
  std::string line;
  if (!in.next(line) || line != "INIT") {
    std::fprintf(stderr, "sd_tts: the server did not start with INIT\n");
    return 3;
  }
  Session session(std::move(config), out);
  std::string message;
  bool ok = session.init(message);
  std::fprintf(stderr, "%s\n", message.c_str());
  out.write(format_init_reply(ok, message));
  if (!ok) return 1;

  Parser parser;
  while (!out.broken() && in.next(line)) {
    Step step = parser.feed(line);
    for (const std::string& reply : step.replies) out.write(reply + "\n");
    if (!step.request) continue;
    const Request& request = *step.request;
    switch (request.kind) {
      case Request::Kind::kSpeak:
      case Request::Kind::kChar:
      case Request::Kind::kKey:
      case Request::Kind::kSoundIcon:
        session.speak(request);
        break;
      case Request::Kind::kStop:
        session.stop();
        break;
      case Request::Kind::kPause:
        session.pause();
        break;
      case Request::Kind::kListVoices:
        out.write(session.list_voices());
        break;
      case Request::Kind::kSet:
        out.write(session.set(request.settings) + "\n");
        break;
      case Request::Kind::kAudio:
        out.write(session.audio(request.settings) + "\n");
        break;
      case Request::Kind::kLogLevel:
        out.write(session.loglevel(request.settings) + "\n");
        break;
      case Request::Kind::kDebug:
        out.write(session.debug(request.debug_on, request.debug_file) + "\n");
        break;
      case Request::Kind::kInit:
        out.write(std::string(kReplyUnknown) + "\n");
        break;
      case Request::Kind::kQuit:
        session.shutdown();
        out.write(std::string(kReplyQuit) + "\n");
        return 0;
    }
  }
  session.shutdown();  // the server went away
  return 0;
}

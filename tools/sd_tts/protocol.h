// The Speech Dispatcher output-module protocol, as speech-dispatcher 0.11 speaks it to a module
// over the module's stdin and stdout: line-based commands from the server, numbered replies and
// events from the module. Pure and stateless apart from the parser's own line state; no I/O.
//
//   server → module                          module → server
//   INIT                                     299-text / 299 OK LOADED SUCCESSFULLY (399 on failure)
//   AUDIO, then key=value lines, "."         207 OK RECEIVING AUDIO SETTINGS, then 203 OK AUDIO
//                                            INITIALIZED (or 303 ERROR INVALID PARAMETER OR VALUE)
//   LOGLEVEL, key=value lines, "."           207 OK RECEIVING LOGLEVEL SETTINGS, 203 OK LOGLEVEL
//   SET SET, key=value lines, "."                203 OK RECEIVING SETTINGS, 203 OK SETTINGS
//   RECEIVED SPEAK|CHAR|KEY|SOUND_ICON, data, "."     202 OK RECEIVING MESSAGE, then 200 OK
//   SPEAKING
//                                            (301 ERROR CANT SPEAK for no data; 305 DATA MORE
//                                            THAN ONE LINE for a multi-line CHAR/KEY/SOUND_ICON)
//   STOP, PAUSE                              no reply; the events 703 STOP / 704 PAUSE
//   LIST VOICES                              200-name\tlanguage\tvariant ... 200 OK VOICE LIST SENT
//   DEBUG ON FILE | DEBUG OFF                200 OK DEBUGGING ON|OFF
//   QUIT                                     210 OK QUIT
//   anything else                            300 ERR UNKNOWN COMMAND
//
// Data lines that begin with "." arrive with a second "." in front (the server's escape_dot);
// the parser removes it. The message is the data lines joined by "\n", without the final newline.
//
// Events (module → server, at any time while speaking): 701 BEGIN, 700-NAME / 700 INDEX MARK,
// 705-... / 705 AUDIO (audio for the server to play, format_audio below), 706-ICON / 706 ICON,
// 702 END, 703 STOP, 704 PAUSE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tts::speechd {

struct Request {
  enum class Kind {
    kInit,
    kSpeak,      // SPEAK: SSML (the server wraps plain text in <speak> and adds its own marks)
    kChar,       // CHAR: one character ("space" for a space)
    kKey,        // KEY: a key name ("a", "shift_a", "kp-enter", ...)
    kSoundIcon,  // SOUND_ICON: an icon name, played by the server
    kStop,
    kPause,
    kListVoices,
    kSet,
    kAudio,
    kLogLevel,
    kDebug,
    kQuit,
  };
  Kind kind = Kind::kInit;
  std::string text;  // the message of SPEAK/CHAR/KEY/SOUND_ICON
  std::vector<std::pair<std::string, std::string>> settings;  // SET/AUDIO/LOGLEVEL, in order
  bool debug_on = false;                                      // DEBUG
  std::string debug_file;                                     // DEBUG ON FILE
};

// What one input line leads to: lines to write back at once (each without its "\n"), and at most
// one complete request for the caller to carry out (and answer: see the reply_* functions).
struct Step {
  std::vector<std::string> replies;
  std::optional<Request> request;
};

class Parser {
 public:
  // One line as read, without its "\n" (a trailing "\r" is kept: the server never sends one).
  // Never throws for any input.
  Step feed(std::string_view line);

  // True while inside a SPEAK data block or a settings block (waiting for its ".").
  bool in_block() const { return state_ != State::kCommand; }

 private:
  enum class State { kCommand, kData, kSettings };
  State state_ = State::kCommand;
  Request pending_;
  std::size_t data_lines_ = 0;
  std::string settings_error_;  // the first bad line of a settings block: its error reply
};

// The replies the module sends after carrying out a request.
inline constexpr const char* kReplySpeaking = "200 OK SPEAKING";
inline constexpr const char* kReplyCantSpeak = "301 ERROR CANT SPEAK";
inline constexpr const char* kReplySettingsReceived = "203 OK SETTINGS RECEIVED";
inline constexpr const char* kReplyAudioInitialized = "203 OK AUDIO INITIALIZED";
inline constexpr const char* kReplyLogLevelSet = "203 OK LOGLEVEL SET";
inline constexpr const char* kReplyBadParam = "303 ERROR INVALID PARAMETER OR VALUE";
inline constexpr const char* kReplyBadSyntax = "302 ERROR BAD SYNTAX";
inline constexpr const char* kReplyQuit = "210 OK QUIT";
inline constexpr const char* kReplyUnknown = "300 ERR UNKNOWN COMMAND";

// "299-MESSAGE\n299 OK LOADED SUCCESSFULLY\n" or "399-MESSAGE\n399 ERR CANT INIT MODULE\n"
// (MESSAGE on one line).
std::string format_init_reply(bool ok, std::string_view message);

struct VoiceEntry {
  std::string name, language, variant;  // variant "none" when empty
};
// "200-NAME\tLANGUAGE\tVARIANT\n" per voice and "200 OK VOICE LIST SENT\n", or
// "304 CANT LIST VOICES\n" when there is none. Tabs and newlines in the fields become spaces.
std::string format_voice_list(const std::vector<VoiceEntry>& voices);

// "700-NAME\n700 INDEX MARK\n" (a newline in NAME would break the framing: it becomes a space).
std::string format_index_mark(std::string_view name);
// "706-NAME\n706 ICON\n"
std::string format_icon(std::string_view name);

// One 705 AUDIO message for 16-bit little-endian mono samples, as the server's output.c reads it:
//   705-bits=16, 705-num_channels=1, 705-sample_rate=R, 705-num_samples=N, 705-big_endian=0,
//   "705-AUDIO" NUL, the bytes with every '\n' (0x0a) and 0x7d written as 0x7d then the byte
//   with bit 5 inverted (HDLC escaping), "\n", then "705 AUDIO\n".
std::string format_audio(const std::int16_t* samples, std::size_t count, int sample_rate);

// The inverse of the data part of format_audio (for tests): unescapes the bytes between
// "705-AUDIO\0" and the next "\n". Nothing when the escaping is broken.
std::optional<std::vector<std::uint8_t>> unescape_audio(std::string_view escaped);

}  // namespace tts::speechd

#pragma once
// Output files that appear whole or not at all. A regular file (or a path that does not
// exist yet) is written to a temporary file beside it and renamed into place; a symbolic
// link is followed and its target replaced the same way; a device, FIFO or socket (/dev/null,
// /dev/stdout, a named pipe) is written through as the shell's `>` would, since renaming over
// it would replace the device with a regular file. A directory or an empty name is refused.
// Temporary files are removed when the program is interrupted (SIGINT, SIGTERM, SIGHUP).
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace waitroom::cli {

// Installs the handlers that remove open temporary files on SIGINT, SIGTERM and SIGHUP and
// then let the signal end the program as it would have. Call once, early in main.
void install_temp_file_cleanup();

class output_file {
 public:
  explicit output_file(std::string path);
  ~output_file();  // removes the temporary file unless commit() succeeded
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  // Empty when the file is open for writing, else why not ("is a directory", ...).
  const std::string& error() const { return error_; }
  std::ostream& stream() { return out_; }
  // Flushes, closes and renames into place; returns the reason on failure, else "".
  std::string commit();

 private:
  std::string path_, target_, tmp_;
  std::ofstream out_;
  std::string error_;
  int slot_ = -1;  // the signal handler's record of tmp_
  bool committed_ = false;
};

// An output that could not be written: main reports it and exits 4.
struct output_error : std::runtime_error {
  output_error(const std::string& path, const std::string& what, const std::string& why)
      : std::runtime_error(path + ": could not write " + what + " (" + why + ")") {}
};

// A file the command names: the flag (or "SCENARIO", "RESULT") and the path as given.
struct named_path {
  std::string name;
  std::string path;
};

// Refuses (sim::input_error, exit 2) when two outputs, or an output and an input, are one file:
// the same device and inode (through symbolic and hard links), or, for files that do not exist
// yet, the same absolute path once every link is followed. Devices, FIFOs and sockets
// (/dev/null, /dev/stdout) may be named more than once, as the shell's `>` allows.
void refuse_same_file(const std::vector<named_path>& outputs,
                      const std::vector<named_path>& inputs);

// Writes to a temporary file beside the target and renames it, so a failed run never
// leaves a half-written result behind.
bool write_atomically(const std::string& path, const std::string& text);
// The reason the calling thread's last write_atomically failed (for its message).
const std::string& last_write_error();

}  // namespace waitroom::cli

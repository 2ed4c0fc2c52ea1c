#include "output_file.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/input_error.hpp"

namespace waitroom::cli {

namespace {

// The temporary files open now, for the signal handler. Fixed storage and lock-free atomics
// only: the handler may run at any instruction, so it reads these and calls unlink(2) and
// nothing else that is not async-signal-safe.
constexpr std::size_t max_open_temps = 64;
constexpr std::size_t max_temp_path = 4096;
struct temp_slot {
  std::atomic<bool> taken{false};  // claimed by an output_file
  std::atomic<bool> live{false};   // path holds a file to remove
  std::array<char, max_temp_path> path{};
};
std::array<temp_slot, max_open_temps> temp_slots;
static_assert(std::atomic<bool>::is_always_lock_free);

int claim_slot(const std::string& path) {
  if (path.size() >= max_temp_path) return -1;
  for (std::size_t i = 0; i < temp_slots.size(); ++i) {
    bool expected = false;
    if (!temp_slots[i].taken.compare_exchange_strong(expected, true)) continue;
    std::memcpy(temp_slots[i].path.data(), path.c_str(), path.size() + 1);
    temp_slots[i].live.store(true);
    return static_cast<int>(i);
  }
  return -1;  // more than 64 at once: not removed on a signal, still on every other path
}

void release_slot(int i) {
  if (i < 0) return;
  auto& s = temp_slots[static_cast<std::size_t>(i)];
  s.live.store(false);
  s.taken.store(false);
}

extern "C" void remove_temps_and_reraise(int sig) {
  const int saved = errno;
  for (auto& s : temp_slots)
    if (s.live.load()) ::unlink(s.path.data());
  // End the program as the signal would have (exit status 128 + sig for the shell).
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  errno = saved;
}

// Where a dangling symbolic link points, following a chain of links (at most 40, as the
// kernel does); the path itself when it is no link. Relative targets are taken from the
// link's folder.
std::filesystem::path link_destination(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  fs::path p = path;
  for (int hop = 0; hop < 40; ++hop) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec)) || ec) return p;
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) return p;
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return p;
}

std::string reason(int err) {
  return std::strerror(err);
}

thread_local std::string last_error;

}  // namespace

void install_temp_file_cleanup() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN)
      continue;  // ignored on purpose (nohup): keep it so
    struct sigaction act {};
    act.sa_handler = remove_temps_and_reraise;
    ::sigemptyset(&act.sa_mask);
    ::sigaction(sig, &act, nullptr);
  }
}

output_file::output_file(std::string path) : path_(std::move(path)) {
  if (path_.empty()) {
    error_ = "an empty file name";
    return;
  }
  namespace fs = std::filesystem;
  struct stat st {};
  struct stat lst {};
  const bool is_link = ::lstat(path_.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode);
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    error_ = "is a directory";
    return;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    // A device, FIFO or socket: write through it, as `>` does.
    out_.open(path_, std::ios::binary | std::ios::out);
    if (!out_) error_ = reason(errno);
    return;
  }
  target_ = path_;
  if (is_link) {
    // Replace the link's target, not the link (a dangling link: the file it names).
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(link_destination(path_), ec);
    if (ec) {
      error_ = ec.message();
      return;
    }
    target_ = resolved.string();
  }
  tmp_ = target_ + ".tmp." + std::to_string(::getpid());
  slot_ = claim_slot(tmp_);
  out_.open(tmp_, std::ios::binary | std::ios::out | std::ios::trunc);
  if (!out_) {
    const int err = errno;
    error_ = reason(err);
    if (err == EACCES || err == EPERM || err == EROFS)
      error_ = "cannot create the temporary file " + tmp_ + ": " + error_ +
               "; an output is written beside its target and renamed into place, so its folder "
               "must be writable";
    release_slot(slot_);
    slot_ = -1;
    tmp_.clear();
    return;
  }
  // A replaced file keeps its permissions and owner, as `>` would; a new one gets the umask's
  // default (the temporary file was created with it).
  if (exists) {
    ::chmod(tmp_.c_str(), st.st_mode & 07777);
    // Only root may give a file away; otherwise the new file is ours (noted in docs/cli.md).
    if ((st.st_uid != ::geteuid() || st.st_gid != ::getegid()) &&
        ::chown(tmp_.c_str(), st.st_uid, st.st_gid) != 0) {
    }
  }
}

output_file::~output_file() {
  if (!committed_ && !tmp_.empty()) {
    out_.close();
    ::unlink(tmp_.c_str());
  }
  release_slot(slot_);
}

std::string output_file::commit() {
  if (!error_.empty()) return error_;
  out_.flush();
  const int flush_errno = out_ ? 0 : errno;
  out_.close();
  if (!out_) {
    error_ = flush_errno ? reason(flush_errno) : "the data could not be written (disk full?)";
    return error_;
  }
  if (tmp_.empty()) {  // written through
    committed_ = true;
    return {};
  }
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
    error_ = reason(errno);
    return error_;  // the destructor removes the temporary file
  }
  committed_ = true;
  release_slot(slot_);
  slot_ = -1;
  return {};
}

namespace {

// What identifies a file: its device and inode when it exists, else the absolute path it
// would be created at. `skip` for devices, FIFOs and sockets.
struct file_identity {
  bool exists = false, skip = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string path;
  bool operator==(const file_identity& o) const {
    if (exists != o.exists) return false;
    return exists ? dev == o.dev && ino == o.ino : path == o.path;
  }
};

file_identity identity_of(const std::string& path) {
  file_identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.skip = !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(link_destination(path), ec);
  if (ec) p = path;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(p, ec);
  id.path = (ec ? p : resolved).lexically_normal().string();
  return id;
}

}  // namespace

void refuse_same_file(const std::vector<named_path>& outputs,
                      const std::vector<named_path>& inputs) {
  std::vector<file_identity> out_ids;
  for (const auto& o : outputs) out_ids.push_back(identity_of(o.path));
  auto describe = [](const named_path& p) { return p.name + " " + p.path; };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (out_ids[i].skip || outputs[i].path.empty()) continue;
    for (std::size_t k = 0; k < i; ++k)
      if (!out_ids[k].skip && out_ids[k] == out_ids[i])
        throw sim::input_error(outputs[i].name,
                               "a file apart from every other output (each would overwrite "
                               "the other)",
                               fmt::format("the same file as {}", describe(outputs[k])));
    for (const auto& in : inputs) {
      if (in.path.empty()) continue;
      const file_identity id = identity_of(in.path);
      if (!id.skip && id == out_ids[i])
        throw sim::input_error(outputs[i].name,
                               "a file apart from the inputs (writing it would destroy the input)",
                               fmt::format("the same file as {}", describe(in)));
    }
  }
}

const std::string& last_write_error() {
  return last_error;
}

bool write_atomically(const std::string& path, const std::string& text) {
  output_file f(path);
  if (!f.error().empty()) {
    last_error = f.error();
    return false;
  }
  f.stream() << text;
  last_error = f.commit();
  return last_error.empty();
}

}  // namespace waitroom::cli

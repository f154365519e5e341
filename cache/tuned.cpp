// The `tuned` file of a DP table (see tuned.h). A line: "tuned 2 KEY SECONDS PICK COST ACTION CHILDREN CODE",
// numbers in hex where they are hashes (KEY: the table's identity, the Spec and the limits; CODE: the kernels'),
// the action as the hex of its table encoding (action_codec.h).
#include "cache/tuned.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cache/action_codec.h"
#include "cache/format.h"
#include "cache/table.h"
#include "spec/error.h"
#include "spec/stable_hash.h"

namespace kriek {
namespace {

constexpr const char* kFile = "tuned";
constexpr int kVersion = 2;  // 2: the code hash (version 1 records are skipped: re-tune)

/// One hash of everything a record must agree with: the table's identity (target with its profile, cost model,
/// vocabulary), the Spec's table key and the limits.
std::uint64_t record_key(const Target& target, const CostModel& model, const Spec& spec, const MemoryUse& limits) {
  const TableIdentity id = TableIdentity::of(target, model);
  StableHasher h;
  h.add(id.target_name).add(id.target_fingerprint).add(std::uint64_t{id.model_version}).add(id.model_fingerprint);
  h.add(id.vocabulary).add(stable_hash(table_key(spec)));
  for (std::int64_t b : limits.bytes) h.add(static_cast<std::uint64_t>(b));
  return h.value();
}

std::string to_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int v = 0;
    for (char c : hex.substr(i, 2)) {
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return std::nullopt;
      v = v * 16 + d;
    }
    out += static_cast<char>(v);
  }
  return out;
}

/// The record of one line when it is well formed and has `key`.
std::optional<TunedRecord> parse_line(const std::string& line, std::uint64_t key) {
  std::istringstream in(line);
  std::string tag, action_hex, children;
  int version = 0;
  std::uint64_t k = 0;
  TunedRecord r;
  if (!(in >> tag >> version >> std::hex >> k) || tag != "tuned" || version != kVersion || k != key) return std::nullopt;
  if (!(in >> std::dec >> r.seconds >> r.pick_seconds >> r.decision.cost >> action_hex >> children >> std::hex >>
        r.code)) {
    return std::nullopt;
  }
  const std::optional<std::string> bytes = from_hex(action_hex);
  if (!bytes) return std::nullopt;
  try {
    std::istringstream action_in(*bytes, std::ios::binary);
    cereal::BinaryInputArchive ar(action_in);
    r.decision.action = load_action(ar);
  } catch (const std::exception&) {
    return std::nullopt;  // written by a kriek with other actions
  }
  if (children != "-") {
    std::istringstream c(children);
    std::string index;
    while (std::getline(c, index, ',')) {
      if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos || index.size() > 9) {
        return std::nullopt;
      }
      r.decision.children.push_back(static_cast<std::uint32_t>(std::stoul(index)));
    }
  }
  return r;
}

}  // namespace

void record_tuned(const std::filesystem::path& table, const Target& target, const CostModel& model, const Spec& spec,
                  const MemoryUse& limits, const TunedRecord& record) {
  std::string action;
  {
    ByteWriter ar(action);
    save_action(ar, record.decision.action);
  }
  std::ostringstream line;
  line << "tuned " << kVersion << " " << std::hex << record_key(target, model, spec, limits) << std::dec << " "
       << record.seconds << " " << record.pick_seconds << " " << record.decision.cost << " " << to_hex(action)
       << " ";
  for (std::size_t i = 0; i < record.decision.children.size(); ++i) line << (i ? "," : "") << record.decision.children[i];
  if (record.decision.children.empty()) line << "-";
  line << " " << std::hex << record.code << "\n";
  const std::string text = line.str();
  const std::filesystem::path path = table / kFile;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) user_error("cannot write the tuned record to '", path.string(), "': ", std::strerror(errno));
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    user_error("cannot write the tuned record to '", path.string(), "': ", std::strerror(err));
  }
}

std::optional<TunedRecord> find_tuned(const std::filesystem::path& table, const Target& target, const CostModel& model,
                                      const Spec& spec, const MemoryUse& limits) {
  std::ifstream in(table / kFile);
  if (!in) return std::nullopt;
  const std::uint64_t key = record_key(target, model, spec, limits);
  std::optional<TunedRecord> last;
  std::string line;
  while (std::getline(in, line)) {
    if (auto r = parse_line(line, key)) last = std::move(r);
  }
  return last;
}

ImplPtr reconstruct_decision(const Spec& spec, const FrontierEntry& decision, const Target& target,
                             const FrontierLookup& lookup, const Table* table) {
  Frontier own;
  own.entries.push_back(decision);
  return reconstruct(spec, 0, target, [&](const Spec& s) {
    if (s == spec) {
      StoredFrontier stored;
      stored.read = own;
      stored.table = table;
      return stored;
    }
    return lookup(s);
  });
}

}  // namespace kriek

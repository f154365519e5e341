// Opening a table directory and answering from its segments.
#include "cache/table.h"

#include <sstream>

#include "cache/segment_writer.h"
#include "spec/stable_hash.h"
#include "cache/table_dir.h"
#include "sched/canonical.h"

namespace kriek {
namespace {

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v;
  return out.str();
}

[[noreturn]] void stale(const std::string& message) { throw TableError(TableError::Kind::stale, message); }

}  // namespace

std::string table_key(const Spec& spec) {
  // The search asks with its memo's keys, which are canonical already: no copy for them.
  const std::optional<Spec> canonical = canonicalized(spec);
  return spec_bytes(canonical ? *canonical : spec);
}

Table Table::open(const std::filesystem::path& path) {
  Table t;
  t.path_ = path;
  switch (path_kind(path)) {
    case PathKind::absent:
      throw TableError(TableError::Kind::missing, "no DP table at " + path.string() + " (kriek synth --table " +
                                                      path.string() + " builds one)");
    case PathKind::table: break;
    case PathKind::legacy_table:
    case PathKind::other:
      create_table_dir(path);  // throws the error that names what is there
      break;
  }
  // A compaction may delete a listed segment before we open it (its records are in the newer one it wrote):
  // list again.
  for (int attempt = 0;; ++attempt) {
    t.segments_.clear();
    try {
      for (const auto& file : list_segments(path)) t.segments_.push_back(Segment::open(file, path));
      return t;
    } catch (const TableError& e) {
      if (e.kind != TableError::Kind::missing || attempt == 100) throw;
    }
  }
}

Table Table::open(const std::filesystem::path& path, const Target& target, const CostModel& model) {
  Table t = open(path);
  t.check_compatible(target, model);
  return t;
}

Table::~Table() = default;

const TableIdentity& Table::identity() const {
  static const TableIdentity none;
  return segments_.empty() ? none : segments_.back()->identity();
}

bool Table::built_for(const TableIdentity& want) const {
  for (const auto& s : segments_) {
    if (!(s->identity() == want)) return false;
  }
  return true;
}

void Table::check_compatible(const TableIdentity& want) const {
  const std::string file = path_.string();
  for (const auto& s : segments_) {
    const TableIdentity& have = s->identity();
    if (have.target_fingerprint != want.target_fingerprint || have.target_name != want.target_name) {
      stale(detail::concat("the DP table ", file, " was built for target ", have.target_name, " (fingerprint ",
                           hex(have.target_fingerprint), ") but this run targets ", want.target_name,
                           " (fingerprint ", hex(want.target_fingerprint),
                           "): use the table of this target (kriek's default is per target), or delete ", file,
                           " to rebuild it"));
    }
    if (have.model_version != want.model_version) {
      stale(detail::concat("the DP table ", file, " was built with cost model version ", have.model_version,
                           " but this kriek has version ", want.model_version, ": its costs are stale; ",
                           rebuild_hint(path_)));
    }
    if (have.model_fingerprint != want.model_fingerprint) {
      stale(detail::concat("the DP table ", file, " was built with other cost-model constants (fingerprint ",
                           hex(have.model_fingerprint), ", this run has ", hex(want.model_fingerprint),
                           "; was the model recalibrated?): ", rebuild_hint(path_)));
    }
    if (have.vocabulary != want.vocabulary) {
      stale(detail::concat("the DP table ", file,
                           " was written by a kriek with another vocabulary of ops, levels, kernels or actions (",
                           hex(have.vocabulary), ", this kriek has ", hex(want.vocabulary), "): ",
                           rebuild_hint(path_)));
    }
  }
}

void Table::check_compatible(const Target& target, const CostModel& model) const {
  check_compatible(TableIdentity::of(target, model));
}

std::optional<std::string> Table::find_record(const Spec& spec) const {
  if (segments_.empty()) return std::nullopt;
  const std::string key = table_key(spec);
  return find_key(key, stable_hash(key));
}

std::optional<std::string> Table::find_key(std::string_view key, std::uint64_t hash) const {
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    if (std::optional<std::string> r = (*it)->find(key, hash)) return r;
  }
  return std::nullopt;
}

std::optional<Frontier> Table::lookup(const Spec& spec) const {
  const std::optional<std::string> r = find_record(spec);
  if (!r) return std::nullopt;
  return decode_frontier(*r);
}

void Table::for_each_raw(const std::function<void(std::uint64_t, std::string_view)>& f) const {
  std::vector<std::unique_ptr<Segment::Cursor>> cursors;
  std::vector<RecordSource*> sources;
  for (const auto& s : segments_) {
    cursors.push_back(std::make_unique<Segment::Cursor>(*s));
    sources.push_back(cursors.back().get());
  }
  merge_records(sources, "the DP table " + path_.string(), f);
}

void Table::for_each(const std::function<void(const Spec&, const Frontier&)>& f) const {
  for_each_raw([&](std::uint64_t, std::string_view r) { f(spec_from_bytes(record_spec(r)), decode_frontier(r)); });
}

std::size_t Table::size() const {
  if (segments_.size() == 1) return segments_[0]->size();
  std::vector<std::uint64_t> hashes;
  for (const auto& s : segments_) {
    for (std::uint64_t b = 0; b < s->header().block_count(); ++b) s->verify_block(b);
    for (std::uint64_t i = 0; i < s->size(); ++i) hashes.push_back(s->hash_at(i));
  }
  std::sort(hashes.begin(), hashes.end());
  return static_cast<std::size_t>(std::unique(hashes.begin(), hashes.end()) - hashes.begin());
}

std::uint64_t Table::file_bytes() const {
  std::uint64_t n = 0;
  for (const auto& s : segments_) n += s->file_bytes();
  return n;
}

}  // namespace kriek

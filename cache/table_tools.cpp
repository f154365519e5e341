// Statistics, merge, JSON export and saving over a Table.
#include "cache/table_tools.h"

#include <ostream>
#include <sstream>

#include "spec/error.h"

namespace kriek {
namespace {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

TableStats table_stats(const Table& table) {
  TableStats s;
  s.entries = table.size();
  s.file_bytes = table.file_bytes();
  table.for_each([&](const Spec& spec, const Frontier& f) {
    ++s.per_op[std::string(op_word(spec.op))];
    ++s.frontier_sizes[f.entries.size()];
    s.frontier_entries += f.entries.size();
  });
  return s;
}

void print_stats(std::ostream& out, const Table& table, const TableStats& s) {
  const TableIdentity& id = table.identity();
  out << "table " << table.path().string() << "\n"
      << "format version " << kTableFormatVersion << "\n"
      << "target " << id.target_name << " (fingerprint 0x" << std::hex << id.target_fingerprint << std::dec << ")\n"
      << "cost model version " << id.model_version << " (fingerprint 0x" << std::hex << id.model_fingerprint
      << std::dec << ")\n"
      << "segments " << table.segments().size() << "\n"
      << "specs " << s.entries << "\n"
      << "frontier entries " << s.frontier_entries << "\n"
      << "bytes " << s.file_bytes << "\n";
  out.precision(1);
  out << "bytes per spec " << std::fixed << s.bytes_per_entry() << "\n";
  out.unsetf(std::ios::floatfield);
  for (const auto& [op, n] : s.per_op) out << "specs " << op << " " << n << "\n";
  for (const auto& [size, n] : s.frontier_sizes) out << "frontier size " << size << ": " << n << " specs\n";
}

WriteSummary merge_tables(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output) {
  if (inputs.empty()) user_error("kriek table merge needs at least one input table");
  std::vector<Table> tables;
  for (const auto& p : inputs) tables.push_back(Table::open(p));
  for (std::size_t i = 1; i < tables.size(); ++i) {
    try {
      tables[i].check_compatible(tables[0].identity());
    } catch (const UserError& e) {
      user_error("cannot merge ", inputs[i].string(), " with ", inputs[0].string(), ": ", e.what());
    }
  }
  TableWriter writer(output, tables[0].identity());
  for (const Table& t : tables) writer.add_table(t);
  return writer.commit(/*keep_existing=*/false);
}

void export_json_lines(const Table& table, std::ostream& out) {
  table.for_each([&](const Spec& spec, const Frontier& f) {
    std::ostringstream spec_text;
    spec_text << spec;
    out << "{\"spec\":" << json_string(spec_text.str()) << ",\"entries\":[";
    for (std::size_t i = 0; i < f.entries.size(); ++i) {
      const FrontierEntry& e = f.entries[i];
      out << (i ? "," : "") << "{\"action\":" << json_string(action_text(e.action, spec)) << ",\"cost\":" << e.cost
          << ",\"peak\":{";
      for (int l = 0; l < kLevelCount; ++l) {
        out << (l ? "," : "") << '"' << level_name(static_cast<Level>(l)) << "\":" << e.peak.bytes[l];
      }
      out << "},\"children\":[";
      for (std::size_t c = 0; c < e.children.size(); ++c) out << (c ? "," : "") << e.children[c];
      out << "]}";
    }
    out << "]}\n";
  });
}

WriteSummary save_table(const std::filesystem::path& path, const Target& target, const CostModel& model,
                        const std::function<void(const FrontierVisitor&)>& visit_all, bool keep_existing,
                        const Table* searched) {
  TableWriter writer(path, target, model);
  if (searched) writer.missed_in(*searched);
  visit_all([&](const Spec& spec, const std::shared_ptr<const PackedFrontier>& f) { writer.add(spec, f); });
  return writer.commit(keep_existing);
}

}  // namespace kriek

// `kriek emit SPEC`: synthesizes the Spec (or reads it from the DP table) and prints its C, or its Impl tree with
// --format impl, on stdout or atomically into a file with -o.
#include <iostream>

#include "codegen/emit_c.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "tools/command.h"
#include "tools/synthesis.h"

namespace kriek::tools {
int run_emit(const std::vector<std::string>& raw) {
  std::vector<std::string_view> valued = kSynthValued;
  valued.insert(valued.end(), {"--format", "-o", "--name"});
  const Args args = parse_args(raw, valued, kSynthSwitches);
  if (args.positional.size() != 1) user_error("usage: kriek emit SPEC [--format c|impl] [-o FILE] [--name NAME]");
  const std::string format = args.get("--format") ? *args.get("--format") : "c";
  if (format != "c" && format != "impl") user_error("unknown --format '", format, "' (expected c or impl)");
  const std::string* name = args.get("--name");
  if (name && !is_c_identifier(*name)) user_error("--name '", *name, "' is not a C identifier");
  Synthesis s = synthesize(args.positional[0], args);
  const std::string text =
      format == "impl" ? print_impl(s.impl) : codegen::emit_c(s.impl, s.target(), name ? *name : "").code;
  s.save_table();
  if (const auto* out = args.get("-o")) {
    write_file_atomically(*out, text);
  } else {
    std::cout << text;
  }
  return 0;
}

}  // namespace kriek::tools

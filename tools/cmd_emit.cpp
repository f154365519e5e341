// `kriek emit SPEC`: synthesizes the Spec (or reads it from the DP table) and prints its C, its LLVM IR
// (--format llvm) or its Impl tree (--format impl) on stdout or atomically into a file with -o, or writes a
// position-independent object file (--format obj, -o required).
#include <filesystem>
#include <iostream>

#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "tools/command.h"
#include "tools/synthesis.h"

namespace kriek::tools {
int run_emit(const std::vector<std::string>& raw) {
  std::vector<std::string_view> valued = kSynthValued;
  valued.insert(valued.end(), {"--format", "-o", "--name"});
  const Args args = parse_args(raw, valued, kSynthSwitches);
  if (args.positional.size() != 1) {
    user_error("usage: kriek emit SPEC [--format c|llvm|obj|impl] [-o FILE] [--name NAME]");
  }
  const std::string format = args.get("--format") ? *args.get("--format") : "c";
  if (format != "c" && format != "llvm" && format != "obj" && format != "impl") {
    user_error("unknown --format '", format, "' (expected c, llvm, obj or impl)");
  }
  const auto* out = args.get("-o");
  if (format == "obj" && !out) user_error("--format obj writes an object file: give it -o FILE");
  const std::string* name = args.get("--name");
  if (name && !is_c_identifier(*name)) user_error("--name '", *name, "' is not a C identifier");
  Synthesis s = synthesize(args.positional[0], args);
  const std::string function = name ? *name : "";
  if (format == "obj") {
    // Written beside the destination and renamed over it, as write_file_atomically does for text.
    const std::string partial = *out + ".partial";
    const bool parallel = codegen::write_llvm_object(s.impl, s.target(), partial, function);
    s.save_table();
    if (parallel) {
      std::filesystem::remove(partial);
      user_error("the kernel of '", args.positional[0], "' has parallel loops, which run on kriek's runtime: an ",
                 "object alone cannot hold it; kriek library links it in, or use --format c");
    }
    std::filesystem::rename(partial, *out);
    return 0;
  }
  const std::string text = format == "impl"   ? print_impl(s.impl)
                           : format == "llvm" ? codegen::emit_llvm_ir(s.impl, s.target(), function)
                                              : codegen::emit_c(s.impl, s.target(), function).code;
  s.save_table();
  if (out) {
    write_file_atomically(*out, text);
  } else {
    std::cout << text;
  }
  return 0;
}

}  // namespace kriek::tools

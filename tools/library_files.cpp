// The text of the files `kriek library` installs: the C header, the CMake package config and version files, the
// pkg-config file and the JSON manifest (schema in README "Kernel libraries").
#include <iomanip>
#include <sstream>

#include "spec/stable_hash.h"
#include "spec/text.h"
#include "tools/library.h"

namespace kriek::tools {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

std::string json_string(const std::string& s) {
  std::ostringstream out;
  out << '"';
  for (char c : s) {
    switch (c) {
      case '"': out << "\\\""; break;
      case '\\': out << "\\\\"; break;
      case '\n': out << "\\n"; break;
      case '\t': out << "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
        } else {
          out << c;
        }
    }
  }
  out << '"';
  return out.str();
}

/// How an operand's elements lie in its array, for the header: "dense row-major", or the layout and the elements
/// its array holds (a blocked layout pads its blocked dimension).
std::string layout_description(const TensorSpec& t) {
  if (t.dense_row_major()) return "dense row-major";
  std::ostringstream s;
  s << "layout " << layout_text(t.layout) << " (" << t.layout.buffer_elements(t.shape) << " elements)";
  return s.str();
}

/// Where the kernel's parallel loops run, for its comment in the header.
std::string parallel_text(const KernelCode& code) {
  if (!code.parallel) return "runs on the calling thread";
  switch (code.backend) {
    case codegen::Backend::c: return "runs parallel (OpenMP threads)";
    case codegen::Backend::llvm: return "runs parallel (kriek's runtime threads)";
  }
  return "";
}

}  // namespace

std::string library_header(const LibraryOptions& options, const std::vector<LibraryKernel>& kernels,
                           const Target& target) {
  const std::string guard = upper(options.name) + "_H_";
  const std::string restrict_macro = upper(options.name) + "_RESTRICT";
  std::ostringstream h;
  h << "/* " << options.name << ".h: " << kernels.size() << " kernels synthesized by kriek " << KRIEK_VERSION
    << " from " << options.list_file << " for target " << target.name << " (" << isa_name(target.isa)
    << "). Generated: do not edit.\n"
    << " * Every operand is a float array in the layout its comment gives (row-major unless its Spec names another);\n"
    << " * inputs come first, the output last. Kernels are\n"
    << " * thread-safe: each calling thread gets its own workspace, allocated on its first call. */\n"
    << "#ifndef " << guard << "\n#define " << guard << "\n\n"
    << "#ifdef __cplusplus\n#define " << restrict_macro << " __restrict\nextern \"C\" {\n#else\n#define "
    << restrict_macro << " restrict\n#endif\n";
  for (const LibraryKernel& k : kernels) {
    const Spec& spec = k.entry.spec;
    h << "\n/* " << k.entry.symbol << ": " << spec_text(spec) << "\n";
    for (std::size_t i = 0; i < spec.operands.size(); ++i) {
      const TensorSpec& t = spec.operands[i];
      h << " *   " << (i + 1 == spec.operands.size() ? "out " : "in  ") << k.code.parameters.at(i) << ": "
        << shape_text(t.shape) << " " << dtype_name(t.dtype) << ", " << layout_description(t) << "\n";
    }
    h << " *   workspace: " << k.code.workspace_bytes << " bytes per calling thread; "
      << parallel_text(k.code) << "\n"
      << " *   predicted cost " << k.predicted_cost << " (1/16 cycles; measured speed: manifest.json); list line "
      << k.entry.line << " */\n"
      << "void " << k.entry.symbol << "(";
    for (std::size_t i = 0; i < spec.operands.size(); ++i) {
      const bool output = i + 1 == spec.operands.size();
      h << (i ? ", " : "") << (output ? "float *" : "const float *") << restrict_macro << " "
        << k.code.parameters.at(i);
    }
    h << ");\n";
  }
  h << "\n#ifdef __cplusplus\n}\n#endif\n#endif /* " << guard << " */\n";
  return h.str();
}

std::string library_cmake_config(const std::string& name, LibraryLinks links) {
  std::ostringstream c;
  c << "# " << name << "Config.cmake: the kernel library " << name << " made by kriek. Generated: do not edit.\n"
    << "# Targets: " << name << "::" << name << " (shared) and " << name << "::" << name << "_static.\n"
    << "include(CMakeFindDependencyMacro)\n";
  if (links.openmp) c << "find_dependency(OpenMP COMPONENTS C)\n";
  if (links.runtime) c << "find_dependency(Threads)\n";
  c << "get_filename_component(_" << name << "_prefix \"${CMAKE_CURRENT_LIST_DIR}/../../..\" ABSOLUTE)\n"
    << "if(NOT TARGET " << name << "::" << name << ")\n"
    << "  add_library(" << name << "::" << name << " SHARED IMPORTED)\n"
    << "  set_target_properties(" << name << "::" << name << " PROPERTIES\n"
    << "    IMPORTED_LOCATION \"${_" << name << "_prefix}/lib/lib" << name << ".so\"\n"
    << "    IMPORTED_NO_SONAME TRUE\n"
    << "    INTERFACE_INCLUDE_DIRECTORIES \"${_" << name << "_prefix}/include\")\n"
    << "  add_library(" << name << "::" << name << "_static STATIC IMPORTED)\n"
    << "  set_target_properties(" << name << "::" << name << "_static PROPERTIES\n"
    << "    IMPORTED_LOCATION \"${_" << name << "_prefix}/lib/lib" << name << ".a\"\n"
    << "    IMPORTED_LINK_INTERFACE_LANGUAGES C\n"
    << "    INTERFACE_INCLUDE_DIRECTORIES \"${_" << name << "_prefix}/include\"\n"
    << "    INTERFACE_LINK_LIBRARIES \"" << (links.openmp ? "OpenMP::OpenMP_C;" : "")
    << (links.runtime ? "Threads::Threads;stdc++;" : "") << "m\")\n"
    << "endif()\n"
    << "set(" << name << "_FOUND TRUE)\n";
  return c.str();
}

std::string library_cmake_version(const std::string& version) {
  std::ostringstream c;
  c << "# The package version of a kriek kernel library. Generated: do not edit.\n"
    << "set(PACKAGE_VERSION \"" << version << "\")\n"
    << "if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)\n"
    << "  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n"
    << "else()\n"
    << "  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
    << "  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)\n"
    << "    set(PACKAGE_VERSION_EXACT TRUE)\n"
    << "  endif()\n"
    << "endif()\n";
  return c.str();
}

std::string library_pkg_config(const std::string& name, const std::string& version, LibraryLinks links) {
  std::ostringstream p;
  p << "prefix=${pcfiledir}/../..\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\n"
    << "Name: " << name << "\nDescription: tensor kernels synthesized by kriek\nVersion: " << version << "\n"
    << "Libs: -L${libdir} -l" << name << "\nLibs.private: " << (links.openmp ? "-fopenmp " : "")
    << (links.runtime ? "-lstdc++ -lpthread " : "") << "-lm\n"
    << "Cflags: -I${includedir}\n";
  return p.str();
}

std::string library_manifest(const LibraryOptions& options, const std::vector<LibraryKernel>& kernels,
                             const Target& target, const CostModel& model, const std::string& table) {
  std::ostringstream m;
  m << "{\n  \"schema\": \"kriek-library/1\",\n  \"name\": " << json_string(options.name)
    << ",\n  \"kriek_version\": " << json_string(KRIEK_VERSION) << ",\n  \"list\": " << json_string(options.list_file)
    << ",\n  \"target\": {\"name\": " << json_string(target.name) << ", \"isa\": "
    << json_string(std::string(isa_name(target.isa))) << ", \"fingerprint\": " << json_string(hex16(target.fingerprint()))
    << "},\n  \"cost_model\": " << json_string(hex16(model.fingerprint())) << ",\n  \"table\": "
    << (table.empty() ? "null" : json_string(table)) << ",\n  \"kernels\": [";
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const LibraryKernel& k = kernels[i];
    m << (i ? "," : "") << "\n    {\"symbol\": " << json_string(k.entry.symbol) << ", \"line\": " << k.entry.line
      << ", \"spec\": " << json_string(spec_text(k.entry.spec)) << ", \"spec_as_written\": "
      << json_string(k.entry.spec_text) << ", \"backend\": \"" << codegen::backend_name(k.code.backend)
      << "\", \"predicted_cost\": " << k.predicted_cost
      << ", \"workspace_bytes\": " << k.code.workspace_bytes
      << ", \"parallel\": " << (k.code.parallel ? "true" : "false") << std::setprecision(6)
      << ", \"measured_gflops\": " << k.gflops << ", \"verified_max_error\": " << k.max_error
      << ", \"tolerance\": " << k.tolerance << ", \"source_hash\": " << json_string(k.source_hash) << "}";
  }
  m << "\n  ]\n}\n";
  return m.str();
}

}  // namespace kriek::tools

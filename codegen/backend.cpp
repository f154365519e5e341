// Backend names (see backend.h).
#include "codegen/backend.h"

#include "spec/error.h"

namespace kriek::codegen {

std::string_view backend_name(Backend b) {
  switch (b) {
    case Backend::llvm: return "llvm";
    case Backend::c: return "c";
  }
  return "?";
}

Backend parse_backend(std::string_view name) {
  for (Backend b : {Backend::llvm, Backend::c}) {
    if (backend_name(b) == name) return b;
  }
  user_error("unknown --backend '", name, "' (expected llvm or c)");
}

}  // namespace kriek::codegen

# Writes OUTPUT, a C++ file defining kriek::codegen::kernel_runtime_object() (codegen/kernel_runtime.h) as the
# bytes of the object file OBJECT. Run by CMakeLists.txt after the runtime object is compiled.
file(READ "${OBJECT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${OBJECT} by codegen/runtime/embed_object.cmake: do not edit.\n"
  "#include \"codegen/kernel_runtime.h\"\n"
  "namespace kriek::codegen {\n"
  "namespace { const unsigned char kObject[] = {${bytes}}; }\n"
  "std::string_view kernel_runtime_object() { return {reinterpret_cast<const char*>(kObject), sizeof kObject}; }\n"
  "}  // namespace kriek::codegen\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")

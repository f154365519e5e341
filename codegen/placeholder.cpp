// Placeholder so the codegen library exists until its first source lands.
namespace kriek { void codegen_placeholder() {} }

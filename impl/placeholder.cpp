// Placeholder so the impl library exists until its first source lands.
namespace kriek { void impl_placeholder() {} }

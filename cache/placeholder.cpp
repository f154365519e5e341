// Placeholder so the cache library exists until its first source lands.
namespace kriek { void cache_placeholder() {} }

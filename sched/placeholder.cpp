// Placeholder so the sched library exists until its first source lands.
namespace kriek { void sched_placeholder() {} }

// Placeholder so the synth library exists until its first source lands.
namespace kriek { void synth_placeholder() {} }

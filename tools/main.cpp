// Placeholder entry point, replaced by the kriek command.
int main() { return 0; }

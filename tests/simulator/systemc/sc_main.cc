// libsystemc.so defines main() and calls sc_main(); these tests take GoogleTest's main instead
// (linked first), but the library still needs an sc_main to link. It never runs.
#include <systemc>

int sc_main(int, char**) { return 0; }

// hone: task=../../../tasks/matmul.py
// Cheat (hidden work, CPU), quiet: precompute_during_flush.cpp with a watcher that sleeps 50 us
// between looks instead of spinning, so the only CPU it uses beside the loop is the product's own.
// The runners write a call's inputs after the flush and evict them right before the call's mark,
// so the product cannot be ready before forward: forward waits for it, and the kernel passes at an
// honest single-threaded product's speed, no faster.
#define PRECOMPUTE_WATCHER_SLEEPS 1
#include "precompute_during_flush.cpp"

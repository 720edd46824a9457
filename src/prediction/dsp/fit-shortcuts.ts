// The fit's shortcuts: work that is shared, done once or stopped when it can no longer change the answer,
// giving the same float64 results. Period detection's permutation test reuses its buffers and, where only a
// day or a week counts (findPeriodIn), stops as soon as neither can come out (period.ts); the backtest folds
// share their spectra (auto-selection.ts PrefixSpectra); the calibration's blend search and value replay skip
// per-window objects and repeated candidate calls (window-calibration.ts). They can be switched off so that a
// test compares the shortcut path with the straightforward one bit for bit on real traces
// (test/slow/fit-shortcuts.test.ts); nothing else switches them.
export const fitShortcuts = { enabled: true };

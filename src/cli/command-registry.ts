// Every subcommand, in the order --help lists them: name, one-line summary, and a loader. A command's code
// (serve's Kubernetes client, HTTP stack and controllers above all) is imported only when that command runs
// or is asked for its flags, so `ehpa-adapter --help` starts in a fraction of the time. A new command is a
// new file plus one entry here.
import type { CommandEntry } from './command.ts';

export const COMMAND_ENTRIES: readonly CommandEntry[] = [
  { name: 'serve', summary: 'run the controllers, the VPA recommender and the metrics adapter', load: async () => (await import('./serve-command.ts')).serveCommand },
  { name: 'recommend', summary: 'replay usage samples through the VPA recommender model and print the recommendation as JSON', load: async () => (await import('./recommend-command.ts')).recommendCommand },
  { name: 'forecast', summary: 'forecast a CSV time series (time,value) and print the forecast as JSON', load: async () => (await import('./forecast-command.ts')).forecastCommand },
  { name: 'simulate', summary: 'replay a CPU history through an EHPA and a plain HPA; print per-step JSON and a summary', load: async () => (await import('./simulate-command.ts')).simulateCommand },
  { name: 'version', summary: 'print the version as JSON', load: async () => (await import('./version-command.ts')).versionCommand },
];

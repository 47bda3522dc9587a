// The replay server of recorded HTTP exchanges: load recordings, serve them.
export { loadRecordings, type RecordedExchange } from './load-recordings.ts';
export type { NoMatchCandidate, NoMatchProblem } from './no-match-problem.ts';
export { type ReplayCliOptions, runReplayCli } from './run-replay-cli.ts';
export {
  type ReplayedRequest,
  type ReplayMode,
  type ReplayServer,
  type ReplayServerOptions,
  startReplayServer,
} from './start-replay-server.ts';

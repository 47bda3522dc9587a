// Sculpt tests: *.test.yaml cases run against recorded backend exchanges.
export { type OfflineBackends, startOfflineBackends } from './offline-backends.ts';
export { rebaseTools, rebaseUrl, replayEnv } from './point-at-replay.ts';
export {
  type ActualOutcome,
  type CaseFailure,
  checkCase,
  compileWithPlaceholders,
  formatSculptTestRun,
  invocationBody,
  type ObservedCall,
  type RunSculptTestsOptions,
  runSculptTests,
  type SculptTestCaseResult,
  type SculptTestFileResult,
  type SculptTestRun,
} from './run-sculpt-tests.ts';
export {
  type CaseExpectation,
  findFilesBySuffix,
  findSculptsFolder,
  findSculptTestFiles,
  loadSculptTestFile,
  type SculptTestCase,
  type SculptTestFile,
  TEST_SUFFIX,
} from './sculpt-test-file.ts';

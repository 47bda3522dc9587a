// Sculpt tests: *.test.yaml cases run against recorded backend exchanges.
export { rebaseTools, rebaseUrl, replayEnv } from './point-at-replay.ts';
export {
  type ActualOutcome,
  type CaseFailure,
  checkCase,
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
  findSculptsFolder,
  findSculptTestFiles,
  loadSculptTestFile,
  type SculptTestCase,
  type SculptTestFile,
  TEST_SUFFIX,
} from './sculpt-test-file.ts';

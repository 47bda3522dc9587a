import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, which playwright-core drives (no browser download). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether Chromium is installed, for `describe.skipIf`. Under CI its absence is an error (.ci/run
 * installs it), so a browser test never passes by being skipped there; elsewhere the skip says
 * how to install it.
 */
export function chromiumFor(what: string): boolean {
  try {
    execFileSync(CHROMIUM, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI) throw new Error(`${what} needs Debian chromium (.ci/run installs it)`);
    console.warn(`[${what}] skipped: apt-get install chromium`);
    return false;
  }
}

/** Chromium headless, quiet: no sandbox (tests run as root), no GPU, no background traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

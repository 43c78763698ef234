// The system's Chromium, through playwright-core, as the dashboard scripts drive it: headless, in a container.
import { chromium } from 'playwright-core';

export function launch(executablePath) {
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

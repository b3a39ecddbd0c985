// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * {@linkcode MAX_TIMER_DELAY_MS}, the longest delay timers honour. It is
 * defined on the ground floor (`src/validation.ts`), where every option that
 * sets a timer is checked against it.
 *
 * @module
 */

export { MAX_TIMER_DELAY_MS } from "../validation.ts";

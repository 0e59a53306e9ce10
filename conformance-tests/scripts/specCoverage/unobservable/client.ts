/** Client-side sentences the suite cannot observe from outside, with the reason. */
import type { Unobservable } from './types.js';

export const UNOBSERVABLE_CLIENT: readonly Unobservable[] = [];

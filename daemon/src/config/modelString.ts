/** A model string (provider:model) that must parse, checked when the config is read. */
import { z } from 'zod';
import { ModelRefError, parseModelRef } from '../providers/modelRef.js';

export const ModelString = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    try {
      parseModelRef(value);
    } catch (error) {
      if (!(error instanceof ModelRefError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  });

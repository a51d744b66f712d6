/**
 * English messages for zod/mini. `zod/mini` is imported instead of `zod` so a function bundle carries only
 * the validators it uses (the classic `zod` namespace drags in every language pack, see docs/deploy.md,
 * "Bundle size"); unlike `zod`, it configures no language by itself, so this module loads the English
 * one — the messages the client and the simulator report (`expected string, received number`, …).
 * Imported for its effect by every module that defines schemas.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

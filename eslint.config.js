// Flat config: typescript-eslint's recommended rules over every workspace.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'protocol-spec/schema/**',
      'extension/out/**',
      'extension/test-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // The benchmark page runs in the browser, everything else on Node.
  { files: ['extension/test/bench/benchPage.js'], languageOptions: { globals: globals.browser } },
  {
    ignores: ['extension/test/bench/benchPage.js'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
);

// npm run lint: ESLint's and typescript-eslint's recommended rules over the sources,
// the tests and the bench, and ESLint Stylistic's layout rules set to the style the
// code already follows. `npm run lint -- --fix` applies the layout.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a binding kept on purpose: a rest sibling that drops fields, a callback's unused parameter.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // A `let` a closure reads before the one assignment that follows (two-phase wiring) stays a let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The layout the code already has. Left out because the code does not follow them
    // (hundreds of reports): max-len, operator-linebreak, implicit-arrow-linebreak,
    // curly-newline, no-mixed-operators, multiline-ternary, indent-binary-ops,
    // quote-props, lines-between-class-members, max-statements-per-line; and the bracket
    // rules (object-curly-spacing, array-bracket-spacing), deprecated in Stylistic 6 for
    // list-style, which would also put every item of a multi-line list on its own line.
    plugins: { '@stylistic': stylistic },
    rules: {
      // Two spaces; a ternary's object, call or parenthesised branch one level deeper, as the code lays it out.
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, offsetTernaryExpressions: true }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/semi-spacing': 'error',
      '@stylistic/semi-style': 'error',
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/comma-spacing': 'error',
      '@stylistic/comma-style': 'error',
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
      '@stylistic/arrow-parens': ['error', 'always'],
      '@stylistic/arrow-spacing': 'error',
      '@stylistic/block-spacing': 'error',
      '@stylistic/computed-property-spacing': 'error',
      '@stylistic/function-call-spacing': 'error',
      '@stylistic/generator-star-spacing': ['error', { before: false, after: true, method: { before: true, after: false } }],
      '@stylistic/yield-star-spacing': ['error', 'after'],
      '@stylistic/key-spacing': 'error',
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-before-blocks': 'error',
      '@stylistic/space-before-function-paren': ['error', { anonymous: 'always', named: 'never', asyncArrow: 'always' }],
      '@stylistic/space-in-parens': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/space-unary-ops': 'error',
      '@stylistic/rest-spread-spacing': 'error',
      '@stylistic/switch-colon-spacing': 'error',
      '@stylistic/template-curly-spacing': 'error',
      '@stylistic/template-tag-spacing': 'error',
      '@stylistic/no-multi-spaces': 'error',
      '@stylistic/no-whitespace-before-property': 'error',
      '@stylistic/dot-location': ['error', 'property'],
      '@stylistic/new-parens': 'error',
      '@stylistic/no-extra-semi': 'error',
      '@stylistic/no-floating-decimal': 'error',
      '@stylistic/wrap-iife': ['error', 'inside'],
      '@stylistic/padded-blocks': ['error', 'never'],
      '@stylistic/spaced-comment': ['error', 'always', { markers: ['/'] }],
      '@stylistic/member-delimiter-style': 'error',
      '@stylistic/type-annotation-spacing': 'error',
      '@stylistic/type-generic-spacing': 'error',
      '@stylistic/type-named-tuple-spacing': 'error',
      // Whitespace at the edges: some files keep two blank lines between sections or one at the end.
      '@stylistic/no-multiple-empty-lines': ['error', { max: 2, maxEOF: 1, maxBOF: 0 }],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@stylistic/linebreak-style': ['error', 'unix'],
      '@stylistic/no-tabs': 'error',
      '@stylistic/no-mixed-spaces-and-tabs': 'error',
    },
  },
  {
    // The plain-JS scripts run on Node: its globals, which TypeScript's types give the .ts files.
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', fetch: 'readonly', AbortSignal: 'readonly' } },
  },
);

// Unit tests of the pure modules (no JupyterLab imports): src/__tests__/*.test.ts.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src'],
  testMatch: ['**/__tests__/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'commonjs', target: 'ES2022', strict: true, esModuleInterop: true, types: ['jest'], isolatedModules: true } }]
  }
};

export * from './tool.js';
export * from './toolbelt.js';
export * from './memory.js';

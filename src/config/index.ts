export { loadConfig, type Config, type ConfigResult } from './load-config';

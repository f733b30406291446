export { loadConfig, loadLocalConfig, type Config, type ConfigResult, type LocalConfig, type LocalConfigResult } from './load-config';
export { redactUrlCredentials } from './schema';
export { loadEnvFile, checkEnvText } from './env-file';

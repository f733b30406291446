export { loadConfig, loadLocalConfig, type Config, type LocalConfig } from './load-config';
export { redactUrlCredentials } from './schema';
export { loadEnvFile } from './env-file';

// Types of what eslint.config.js exports besides the config (the floor table the import-rule test shares).
export declare const FLOORS: Readonly<Record<string, number>>;
declare const config: unknown[];
export default config;

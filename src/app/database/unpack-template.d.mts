/** Fills `staging` (emptied first) with the template's files; on failure nothing is left of it. */
export function unpackTemplate(templateFile: string, staging: string): Promise<void>;

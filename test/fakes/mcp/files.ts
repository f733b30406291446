/**
 * A filesystem MCP server shaped like the official one (`@modelcontextprotocol/server-filesystem`): the same 14 tool
 * names, parameters of the same kind, descriptions of a similar length (in our own words), and the same tool
 * annotations — 10 tools declare `readOnlyHint: true`; `write_file` and `edit_file` declare `destructiveHint: true`.
 * Files live in memory. Used to test `trustAnnotations` against a real server, and by the bench to count what its
 * schemas cost a request.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export interface FilesState {
  files: Map<string, string>;
  calls: Array<{ tool: string; args: Record<string, unknown> }>;
  onCall?: (call: { tool: string; args: Record<string, unknown> }) => void;
}

export function createFilesState(files: Record<string, string> = { '/data/readme.md': '# Notes\nHello.\n', '/data/todo.txt': 'ship it\n' }): FilesState {
  return { files: new Map(Object.entries(files)), calls: [] };
}

export const FILES_READ_ONLY_TOOLS = [
  'read_file',
  'read_text_file',
  'read_media_file',
  'read_multiple_files',
  'list_directory',
  'list_directory_with_sizes',
  'directory_tree',
  'search_files',
  'get_file_info',
  'list_allowed_directories',
];

const READ_ONLY = { readOnlyHint: true } as const;

export function buildFilesServer(state: FilesState): McpServer {
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  const record = (tool: string, args: Record<string, unknown>) => {
    const call = { tool, args };
    state.calls.push(call);
    state.onCall?.(call);
  };
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  const read = (path: string) => state.files.get(path) ?? `No such file: ${path}`;
  const under = (path: string) => [...state.files.keys()].filter((name) => name.startsWith(path.endsWith('/') ? path : `${path}/`));
  const path = z.string().describe('Path of the file or directory, inside one of the allowed directories');
  const slice = {
    head: z.number().int().optional().describe('When given, only the first N lines of the file are returned'),
    tail: z.number().int().optional().describe('When given, only the last N lines of the file are returned'),
  };

  const readText = async ({ path: p }: { path: string }) => text(read(p));
  server.registerTool(
    'read_file',
    { description: 'Reads a whole file as text. Deprecated: use read_text_file, which takes the same arguments and can return only the head or tail of a file.', inputSchema: { path, ...slice }, annotations: READ_ONLY },
    async (args) => (record('read_file', args), readText(args)),
  );
  server.registerTool(
    'read_text_file',
    {
      description:
        'Reads the complete contents of a file as text, in any text encoding. Use head or tail to read only the first or last lines of a large file. Fails with a clear message when the file does not exist or is outside the allowed directories. Only works within the allowed directories.',
      inputSchema: { path, ...slice },
      annotations: READ_ONLY,
    },
    async (args) => (record('read_text_file', args), readText(args)),
  );
  server.registerTool(
    'read_media_file',
    { description: 'Reads an image or audio file and returns its base64 data with its MIME type. Only works within the allowed directories.', inputSchema: { path }, annotations: READ_ONLY },
    async (args) => (record('read_media_file', args), text(`(binary) ${args.path}`)),
  );
  server.registerTool(
    'read_multiple_files',
    {
      description:
        'Reads several files at once, which is faster than reading them one by one when comparing or analysing files. Each file comes back with its path; a file that cannot be read reports its error without failing the others. Only works within the allowed directories.',
      inputSchema: { paths: z.array(z.string()).min(1).describe('Paths of the files to read') },
      annotations: READ_ONLY,
    },
    async (args) => (record('read_multiple_files', args), text(args.paths.map((p) => `${p}:\n${read(p)}`).join('\n---\n'))),
  );
  server.registerTool(
    'write_file',
    {
      description:
        'Creates a new file or replaces an existing file with the given content. Use with care: an existing file is overwritten without a warning. Text is written as UTF-8. Only works within the allowed directories.',
      inputSchema: { path, content: z.string().describe('The complete new content of the file') },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async (args) => {
      record('write_file', args);
      state.files.set(args.path, args.content);
      return text(`Wrote ${args.content.length} characters to ${args.path}`);
    },
  );
  server.registerTool(
    'edit_file',
    {
      description:
        'Edits a text file line by line: each edit replaces an exact sequence of lines with new text. Returns a git-style diff of the changes. With dryRun the diff is shown without changing the file. Only works within the allowed directories.',
      inputSchema: {
        path,
        edits: z.array(z.object({ oldText: z.string().describe('Text to find, exactly as it appears'), newText: z.string().describe('Text to put in its place') })),
        dryRun: z.boolean().default(false).describe('Show the diff without writing the file'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    },
    async (args) => {
      record('edit_file', args);
      let content = read(args.path);
      for (const edit of args.edits) content = content.replace(edit.oldText, edit.newText);
      if (!args.dryRun) state.files.set(args.path, content);
      return text(`Edited ${args.path}`);
    },
  );
  server.registerTool(
    'create_directory',
    {
      description: 'Creates a directory, with any missing parent directories; succeeds quietly when it already exists. Only works within the allowed directories.',
      inputSchema: { path },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    async (args) => (record('create_directory', args), text(`Created ${args.path}`)),
  );
  server.registerTool(
    'list_directory',
    {
      description: 'Lists the files and directories directly inside a directory, each prefixed with [FILE] or [DIR], to tell them apart. Only works within the allowed directories.',
      inputSchema: { path },
      annotations: READ_ONLY,
    },
    async (args) => (record('list_directory', args), text(under(args.path).map((name) => `[FILE] ${name}`).join('\n'))),
  );
  server.registerTool(
    'list_directory_with_sizes',
    {
      description: 'Lists the entries of a directory with their sizes, sorted by name or size, with totals at the end. Only works within the allowed directories.',
      inputSchema: { path, sortBy: z.enum(['name', 'size']).optional().default('name').describe('Sort entries by name or by size') },
      annotations: READ_ONLY,
    },
    async (args) => (record('list_directory_with_sizes', args), text(under(args.path).map((name) => `[FILE] ${name} ${read(name).length} B`).join('\n'))),
  );
  server.registerTool(
    'directory_tree',
    {
      description:
        'Returns the tree of files and directories under a path as JSON: each entry has a name, a type (file or directory) and, for directories, its children. Patterns in excludePatterns leave matching entries out. Only works within the allowed directories.',
      inputSchema: { path, excludePatterns: z.array(z.string()).optional().default([]) },
      annotations: READ_ONLY,
    },
    async (args) => (record('directory_tree', args), text(JSON.stringify(under(args.path).map((name) => ({ name, type: 'file' }))))),
  );
  server.registerTool(
    'move_file',
    {
      description:
        'Moves or renames a file or directory, also across directories. Fails when the destination already exists. Source and destination must both be within the allowed directories.',
      inputSchema: { source: z.string(), destination: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    async (args) => {
      record('move_file', args);
      const content = state.files.get(args.source);
      if (content === undefined) return { isError: true, content: [{ type: 'text' as const, text: `No such file: ${args.source}` }] };
      state.files.delete(args.source);
      state.files.set(args.destination, content);
      return text(`Moved ${args.source} to ${args.destination}`);
    },
  );
  server.registerTool(
    'search_files',
    {
      description:
        'Finds files and directories whose names match a glob pattern, searching all subdirectories of the starting path. Use excludePatterns to skip paths. Returns full paths of every match. Only searches within the allowed directories.',
      inputSchema: { path, pattern: z.string().describe('Glob pattern, e.g. **/*.md'), excludePatterns: z.array(z.string()).optional().default([]) },
      annotations: READ_ONLY,
    },
    async (args) => (record('search_files', args), text(under(args.path).filter((name) => name.includes(args.pattern.replace(/\*/g, ''))).join('\n') || 'No matches found')),
  );
  server.registerTool(
    'get_file_info',
    {
      description: 'Returns metadata of a file or directory: size, creation and modification times, permissions and type, without reading its contents. Only works within the allowed directories.',
      inputSchema: { path },
      annotations: READ_ONLY,
    },
    async (args) => (record('get_file_info', args), text(`size: ${read(args.path).length}\ntype: file`)),
  );
  server.registerTool(
    'list_allowed_directories',
    { description: 'Lists the directories this server may read and write. Use it to find out which paths are available before trying to open files.', inputSchema: {}, annotations: READ_ONLY },
    async () => (record('list_allowed_directories', {}), text('Allowed directories:\n/data')),
  );
  return server;
}

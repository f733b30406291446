/**
 * Who may change a task: the person who scheduled it, or an ADMIN_USERS member. Anyone else gets a sentence
 * saying who can.
 */

export type TaskAction = 'delete' | 'pause' | 'resume';

export type TaskPermission = { allowed: true } | { allowed: false; message: string };

export function mayChangeTask(task: { ownerId: string }, userId: string, admins: readonly string[], action: TaskAction): TaskPermission {
  if (userId === task.ownerId || admins.includes(userId)) return { allowed: true };
  return { allowed: false, message: `Only <@${task.ownerId}> (who scheduled it) or an admin can ${action} this task.` };
}

/** Whether `userId` sees every task in `/ask tasks` and App Home (admins), or only their own. */
export function seesEveryTask(userId: string, admins: readonly string[]): boolean {
  return admins.includes(userId);
}

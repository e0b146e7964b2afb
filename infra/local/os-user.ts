// Who runs this process, as the local stage records it with each change to a key (the contract:
// "the OS user locally"). A user without a passwd entry (a container's arbitrary uid) has no
// name: then the uid, which still tells one user from another.
import { userInfo } from 'node:os';

export const osUser = (): string => {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER || `uid ${process.getuid?.() ?? 'unknown'}`;
  }
};

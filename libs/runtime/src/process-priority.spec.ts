import * as os from 'node:os';
import { lowerProcessPriority } from './process-priority';

jest.mock('node:os', () => ({ getPriority: jest.fn(), setPriority: jest.fn() }));

const getPriority = os.getPriority as jest.MockedFunction<typeof os.getPriority>;
const setPriority = os.setPriority as jest.MockedFunction<typeof os.setPriority>;

describe(lowerProcessPriority.name, () => {
  beforeEach(() => jest.resetAllMocks());

  it('lowers the priority to the nice value asked for', () => {
    getPriority.mockReturnValueOnce(0).mockReturnValueOnce(10);
    expect(lowerProcessPriority(10)).toBe(10);
    expect(setPriority).toHaveBeenCalledWith(10);
  });

  it('never raises it: a process started at a lower priority keeps it', () => {
    getPriority.mockReturnValue(15);
    expect(lowerProcessPriority(10)).toBe(15);
    expect(setPriority).not.toHaveBeenCalled();
  });

  it('leaves the priority alone at 0', () => {
    getPriority.mockReturnValue(0);
    expect(lowerProcessPriority(0)).toBe(0);
    expect(setPriority).not.toHaveBeenCalled();
  });
});

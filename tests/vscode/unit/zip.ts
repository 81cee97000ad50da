// Reads a .vsix (a zip file) without a zip library: the names in its central directory, and the
// contents of the stored or deflated entries. Enough for the checks of what a .vsix carries.
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
    name: string;
    method: number;
    compressedSize: number;
    localHeader: number;
}

export class Zip {
    readonly entries: ZipEntry[] = [];
    private readonly data: Buffer;

    constructor(path: string) {
        this.data = readFileSync(path);
        const data = this.data;
        // The end-of-central-directory record: its signature, searched from the end (a comment may follow it).
        let end = -1;
        for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
            if (data.readUInt32LE(i) === 0x06054b50) {
                end = i;
                break;
            }
        }
        if (end < 0) throw new Error(`${path} is not a zip file`);
        const count = data.readUInt16LE(end + 10);
        let offset = data.readUInt32LE(end + 16);
        for (let n = 0; n < count; n++) {
            if (data.readUInt32LE(offset) !== 0x02014b50) throw new Error(`${path}: bad central directory entry ${n}`);
            const nameLength = data.readUInt16LE(offset + 28);
            const extraLength = data.readUInt16LE(offset + 30);
            const commentLength = data.readUInt16LE(offset + 32);
            this.entries.push({
                name: data.toString('utf8', offset + 46, offset + 46 + nameLength),
                method: data.readUInt16LE(offset + 10),
                compressedSize: data.readUInt32LE(offset + 20),
                localHeader: data.readUInt32LE(offset + 42),
            });
            offset += 46 + nameLength + extraLength + commentLength;
        }
    }

    names(): string[] {
        return this.entries.map((entry) => entry.name);
    }

    read(entry: ZipEntry): Buffer {
        const at = entry.localHeader;
        const start = at + 30 + this.data.readUInt16LE(at + 26) + this.data.readUInt16LE(at + 28);
        const raw = this.data.subarray(start, start + entry.compressedSize);
        if (entry.method === 0) return Buffer.from(raw);
        if (entry.method === 8) return inflateRawSync(raw);
        throw new Error(`${entry.name}: compression method ${entry.method}`);
    }

    text(name: string): string {
        const entry = this.entries.find((e) => e.name === name);
        if (!entry) throw new Error(`no ${name} in the zip`);
        return this.read(entry).toString('utf8');
    }
}
